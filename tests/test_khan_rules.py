"""Khan of Khans rules: each rulebook paragraph, card and Khan ability as a concrete scenario.

Positions are built with khan_support.position: the named cards are put on top of a deck
(last = top), herds and corrals are filled with raid cards taken out of the decks, and
everything else stays in the decks. Seats are 0..n-1, play passes to seat + 1.
"""
import copy

import pytest

from engine.conformance import _keys_read
from engine.games.khan import KhanOfKhans
from khan_support import DECKS, clear_decks, herd_of, play, player, position, texts, token_coloured

TWO = ["bison", "morokanth"]           # two Khans without any effect on a plain raid


# ================================================================ components and set-up
def test_ten_decks_of_eight_cards_with_the_printed_contents():
    d = KhanOfKhans(3, 5).to_json()
    assert [e["name"] for e in d["decks"]] == list(DECKS)
    for e in d["decks"]:
        assert len(e["cards"]) == 8
        assert sorted(e["cards"]) == sorted(["blessing", "stampede", "champion", "magic",
                                              "raid100", "raid50", "raid50", "raid20"])
        assert e["top"] is None                      # nobody knows any order


def test_each_deck_is_shuffled():
    orders = {tuple(KhanOfKhans(2, s).to_json()["decks"][0]["cards"]) for s in range(30)}
    assert len(orders) > 20


@pytest.mark.parametrize("players,tiles", [(2, 4), (3, 3), (4, 3), (5, 2)])
def test_corral_tiles_by_player_count_and_the_morokanth_extra_one(players, tiles):
    khans = ["morokanth", "impala", "bison", "sable", "llama"][:players]
    d = KhanOfKhans(players, 1, khans=khans).to_json()
    assert d["player_state"][0]["corrals_open"] == tiles + 1       # Shrewd
    for ps in d["player_state"][1:]:
        assert ps["corrals_open"] == tiles and ps["corrals_used"] == 0


def test_khans_are_dealt_at_random_from_the_seed_and_distinct():
    seen = set()
    for seed in range(40):
        k = KhanOfKhans(4, seed).khans
        assert len(set(k)) == 4 and set(k) <= {"impala", "bison", "morokanth", "sable", "llama"}
        assert KhanOfKhans(4, seed).khans == k               # the seed fixes them
        seen.add(tuple(k))
    assert len(seen) > 20


def test_khans_fixed_by_the_caller_do_not_change_the_decks():
    a = KhanOfKhans(3, 9, khans=["llama", "sable", "bison"])
    assert a.khans == ["llama", "sable", "bison"]
    b = KhanOfKhans(3, 9)
    assert a.to_json()["decks"] == b.to_json()["decks"]


@pytest.mark.parametrize("khans", [["impala", "bison", "yak"], ["impala", "bison"],
                                   ["impala", "impala", "bison"], ["impala", 3, "bison"],
                                   ["impala", "bison", "sable", "llama"]])
def test_bad_khans_are_refused(khans):
    with pytest.raises(ValueError):
        KhanOfKhans(3, 0, khans=khans)


@pytest.mark.parametrize("khans,message", [
    (5, "khans: give names"),                          # a TypeError from list() before
    ({"impala": 1, "bison": 2, "sable": 3}, "khans: give names"),   # its keys were read
    (["x" * 100_000, "impala", "bison"], "unknown Khan 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'...;"),
])
def test_khans_that_are_no_list_of_names_get_a_short_clear_error(khans, message):
    with pytest.raises(ValueError) as e:
        KhanOfKhans(3, 0, khans=khans)
    assert message in str(e.value) and len(str(e.value)) < 200


@pytest.mark.parametrize("players", [0, 1, 6])
def test_bad_player_counts_are_refused(players):
    with pytest.raises(ValueError):
        KhanOfKhans(players, 0)


def test_bad_seeds_are_refused():
    with pytest.raises(ValueError):
        KhanOfKhans(2, -1)
    with pytest.raises((ValueError, TypeError)):
        KhanOfKhans(2, "x")


def test_play_begins_with_the_impala_people_else_seat_zero_and_passes_clockwise():
    g = KhanOfKhans(4, 2, khans=["bison", "sable", "impala", "llama"])
    assert g.to_move == 2
    order = []
    for _ in range(5):
        order.append(g.to_move)
        legal = [m for m in g.legal_moves() if g.move_to_text(m).startswith("raid-")]
        g.apply(legal[0])
        while g.phase == "blessing":
            g.apply(g.parse_move("keep"))
    assert order == [2, 3, 0, 1, 2]
    assert KhanOfKhans(3, 2, khans=["bison", "sable", "llama"]).to_move == 0


def test_the_four_actions_at_the_start():
    g = KhanOfKhans(2, 0, khans=TWO)
    assert texts(g) == [f"raid-{d}" for d in DECKS]      # empty herd: nothing to corral


# ================================================================ Raid! cards
@pytest.mark.parametrize("card,value", [("raid20", 20), ("raid50", 50), ("raid100", 100)])
def test_a_raid_card_joins_the_herd_face_up(card, value):
    g = position(TWO, tops={"duckpoint": [card]}, herds={0: [50]})
    play(g, "raid-duckpoint")
    assert herd_of(g, 0)[value] == (2 if value == 50 else 1)
    assert g.scores()[0] == 50 + value
    assert g.to_json(view=1)["player_state"][0]["herd"][str(value)] >= 1   # others see it
    assert g.to_move == 1


# ================================================================ Stampede!
def test_stampede_discards_one_highest_raid_card():
    g = position(TWO, tops={"furthest": ["stampede"]}, herds={0: [100, 100, 50, 20]})
    play(g, "raid-furthest")
    assert herd_of(g, 0) == {100: 1, 50: 1, 20: 1}
    box = g.to_json()["box"]
    assert box["stampede"] == 1 and box["raid100"] == 1


def test_stampede_on_an_empty_herd_has_no_effect():
    g = position(TWO, tops={"furthest": ["stampede"]})
    play(g, "raid-furthest")
    assert herd_of(g, 0) == {100: 0, 50: 0, 20: 0}
    assert g.to_json()["box"]["stampede"] == 1


# ================================================================ Tribal Champion
def test_a_champion_is_displayed():
    g = position(TWO, tops={"sundome": ["champion"]}, herds={0: [50]})
    play(g, "raid-sundome")
    assert player(g, 0)["champion"] and herd_of(g, 0)[50] == 1


def test_a_second_champion_causes_infighting_and_the_herd_is_lost():
    g = position(["morokanth", "bison"], tops={"sundome": ["champion"]},
                 herds={0: [100, 50, 20]}, champions=[0])
    play(g, "raid-sundome")
    assert not player(g, 0)["champion"]
    assert herd_of(g, 0) == {100: 0, 50: 0, 20: 0}
    box = g.to_json()["box"]
    assert box["champion"] == 2 and box["raid100"] == 1 and box["raid50"] == 1


def test_bison_riders_lose_only_one_highest_card_to_a_second_champion():
    g = position(["bison", "morokanth"], tops={"sundome": ["champion"]},
                 herds={0: [100, 50, 20]}, champions=[0])
    play(g, "raid-sundome")
    assert not player(g, 0)["champion"]
    assert herd_of(g, 0) == {100: 0, 50: 1, 20: 1}
    assert g.to_json()["box"]["champion"] == 2            # both still discarded


def test_bison_riders_second_champion_with_an_empty_herd():
    g = position(["bison", "morokanth"], tops={"sundome": ["champion"]}, champions=[0])
    play(g, "raid-sundome")
    assert not player(g, 0)["champion"] and g.to_json()["box"]["champion"] == 2


# ================================================================ Enemy Magic
def test_enemy_magic_without_a_champion_discards_the_herd():
    g = position(TWO, tops={"boldhome": ["magic"]}, herds={0: [100, 20]})
    play(g, "raid-boldhome")
    assert herd_of(g, 0) == {100: 0, 50: 0, 20: 0}
    box = g.to_json()["box"]
    assert box["magic"] == 1 and box["raid100"] == 1 and box["raid20"] == 1


def test_enemy_magic_with_a_champion_costs_only_the_champion():
    g = position(TWO, tops={"boldhome": ["magic"]}, herds={0: [100, 20]}, champions=[0])
    play(g, "raid-boldhome")
    assert herd_of(g, 0) == {100: 1, 50: 0, 20: 1}
    assert not player(g, 0)["champion"]
    assert g.to_json()["box"]["champion"] == 1


# ================================================================ Waha's Blessing
def blessing_position(**kw):
    return position(["bison", "morokanth", "llama"], tops={"colymar": ["blessing"]},
                    herds={1: [100, 20], 2: [50]}, **kw)


def test_a_drawn_blessing_is_kept_or_used_at_once_against_any_raid_card():
    g = blessing_position()
    play(g, "raid-colymar")
    assert g.phase == "blessing" and g.to_move == 0
    assert texts(g) == ["keep", "steal-P1-20", "steal-P1-100", "steal-P2-50"]


def test_stealing_gives_the_blessing_to_the_victim_who_keeps_it_used():
    g = blessing_position()
    play(g, "raid-colymar", "steal-P1-100")
    assert herd_of(g, 0)[100] == 1 and herd_of(g, 1) == {100: 0, 50: 0, 20: 1}
    assert player(g, 1)["received_blessings"] == 1 and player(g, 0)["kept_blessings"] == 0
    assert g.scores()[1] == 20 + 20                       # the used blessing counts 20
    assert g.to_move == 1
    assert not any(t.startswith("bless-") for t in texts(g))   # a used one cannot be used


def test_a_kept_blessing_is_worth_20_and_can_be_used_later_as_an_action():
    g = blessing_position()
    play(g, "raid-colymar", "keep")
    assert player(g, 0)["kept_blessings"] == 1 and g.scores()[0] == 20
    play(g, "raid-duckpoint")                              # P1
    while g.phase == "blessing":
        play(g, "keep")
    while g.to_move != 0:
        play(g, g.move_to_text(next(m for m in g.legal_moves()
                                    if g.move_to_text(m).startswith("raid-"))))
        while g.phase == "blessing":
            play(g, "keep")
    assert any(t.startswith("bless-P2-") for t in texts(g))
    before = g.scores()
    play(g, "bless-P2-50")
    assert player(g, 0)["kept_blessings"] == 0 and player(g, 2)["received_blessings"] == 1
    assert g.scores()[0] == before[0] - 20 + 50


def test_a_blessing_drawn_when_nobody_has_a_raid_card_is_kept():
    g = position(TWO, tops={"colymar": ["blessing"]}, herds={0: [50]})
    play(g, "raid-colymar")
    assert g.phase == "main" and player(g, 0)["kept_blessings"] == 1 and g.to_move == 1


def test_a_kept_blessing_needs_a_victim_with_raid_cards():
    g = position(TWO, kept={0: 1})
    assert not any(t.startswith("bless-") for t in texts(g))
    g = position(TWO, kept={0: 1}, herds={1: [20]})
    assert "bless-P1-20" in texts(g)


def test_corralled_cards_cannot_be_stolen():
    g = position(TWO, kept={0: 1}, corrals={1: [100]}, corrals_used={1: 1})
    assert not any(t.startswith("bless-") for t in texts(g))


# ================================================================ corral your herd
def test_corralling_moves_the_herd_under_a_closed_tile_and_discards_the_champion():
    g = position(TWO, herds={0: [100, 50, 20]}, champions=[0])
    play(g, "corral")
    ps = player(g, 0)
    assert ps["corral"] == {"100": 1, "50": 1, "20": 1} and ps["corrals_used"] == 1
    assert ps["corrals_open"] == 3 and herd_of(g, 0) == {100: 0, 50: 0, 20: 0}
    assert not ps["champion"] and g.to_json()["box"]["champion"] == 1
    assert g.scores()[0] == 170 and g.to_move == 1


def test_corralled_cows_are_safe_from_stampede_and_magic():
    g = position(TWO, tops={"boldhome": ["stampede", "magic"]}, herds={0: [100]},
                 corrals={0: [50]}, corrals_used={0: 1})
    play(g, "raid-boldhome", "raid-duckpoint", "raid-boldhome")   # magic, then stampede
    assert player(g, 0)["corral"]["50"] == 1 and g.scores()[0] >= 50


def test_each_corral_is_filled_once_and_needs_raid_cards():
    g = position(TWO, herds={0: [20]}, corrals={0: [50, 50, 100, 100]}, corrals_used={0: 4})
    assert "corral" not in texts(g)                       # no open tile left
    g = position(TWO, champions=[0])
    assert "corral" not in texts(g)                       # Interpretation: no empty corral


# ================================================================ Khan abilities
def test_impala_token_starts_brown_and_corralling_turns_it():
    g = position(["impala", "bison"], herds={0: [50]})
    assert g.to_json()["impala_token"] == "brown" and "observant" not in texts(g)
    play(g, "corral")
    assert g.to_json()["impala_token"] == "coloured"
    play(g, "raid-sundome")
    assert "observant" in texts(g)


def test_impala_reveals_up_to_three_decks_takes_one_and_the_rest_stay_known():
    g = position(["impala", "bison"], tops={"boldhome": ["raid20"], "colymar": ["magic"],
                                            "sundome": ["raid100"], "furthest": ["raid50"]},
                 corrals={0: [20]}, corrals_used={0: 1}, edit=token_coloured)
    play(g, "observant", "reveal-boldhome", "reveal-colymar")
    assert g.phase == "reveal"
    view = g.to_json(view=1)                              # everyone sees the revealed cards
    tops = {e["name"]: e["top"] for e in view["decks"]}
    assert tops["boldhome"] == "raid20" and tops["colymar"] == "magic"
    play(g, "reveal-sundome")
    assert g.phase == "pick"                              # three decks: no more reveals
    assert texts(g) == ["take-boldhome", "take-colymar", "take-sundome"]
    play(g, "take-sundome")
    assert herd_of(g, 0)[100] == 1 and g.to_move == 1
    d = g.to_json(view=1)
    tops = {e["name"]: e["top"] for e in d["decks"]}
    assert tops == {**{k: None for k in DECKS}, "boldhome": "raid20", "colymar": "magic"}
    assert d["impala_token"] == "brown"
    for e in d["decks"]:                                  # the known card is not "unseen"
        if e["name"] == "colymar":
            assert "magic" not in e["unseen"]
    play(g, "raid-colymar")                               # Bison draws the known magic
    assert g.to_json()["decks"][1]["top"] is None


def test_impala_may_stop_after_one_reveal_and_resolves_the_card_as_a_raid():
    g = position(["impala", "bison"], tops={"boldhome": ["blessing"]}, herds={1: [50]},
                 corrals={0: [20]}, corrals_used={0: 1}, edit=token_coloured)
    play(g, "observant")
    assert "stop" not in texts(g)                         # at least one card
    play(g, "reveal-boldhome", "stop", "take-boldhome")
    assert g.phase == "blessing" and g.to_move == 0
    play(g, "steal-P1-50")
    assert herd_of(g, 0)[50] == 1


def test_bison_riders_ability_is_covered_above_and_morokanth_has_one_more_tile():
    g = KhanOfKhans(5, 0, khans=["morokanth", "bison", "impala", "sable", "llama"])
    assert [ps["corrals_open"] for ps in g.to_json()["player_state"]] == [3, 2, 2, 2, 2]


def test_sable_raid_cards_are_face_down_to_the_others():
    g = position(["sable", "bison"], tops={"dwarfmine": ["raid100"]})
    play(g, "raid-dwarfmine")
    own = g.to_json(view=0)
    other = g.to_json(view=1)
    assert own["sable_face_down"] == [{"deck": "dwarfmine", "at": "herd", "max": 100,
                                       "value": 100}]
    assert other["sable_face_down"] == [{"deck": "dwarfmine", "at": "herd", "max": 100}]
    assert other["player_state"][0]["herd_face_down"] == 1
    assert "score" not in other["player_state"][0] and own["player_state"][0]["score"] == 100
    # the others count it as one of the four raid cards still unseen from that deck
    unseen = {e["name"]: e["unseen"] for e in other["decks"]}["dwarfmine"]
    assert sum(v for k, v in unseen.items() if k.startswith("raid")) == 4


def test_sable_champion_and_blessing_stay_face_up():
    g = position(["sable", "bison"], tops={"dwarfmine": ["champion"], "colymar": ["blessing"],
                                           "sundome": ["stampede"]})
    play(g, "raid-dwarfmine", "raid-sundome", "raid-colymar")
    v = g.to_json(view=1)["player_state"][0]
    assert v["champion"] and v["kept_blessings"] == 1


def test_a_blessing_on_sable_takes_a_card_at_random():
    takes = set()
    for seed in range(30):
        g = position(["bison", "sable"], tops={"colymar": ["blessing"]},
                     herds={1: [100, 20]}, seed=seed)
        play(g, "raid-colymar")
        assert texts(g) == ["keep", "steal-P1-random"]
        play(g, "steal-P1-random")
        h = herd_of(g, 0)
        taken = 100 if h[100] else 20
        takes.add(taken)
        assert herd_of(g, 1)[120 - taken] == 1
        # the stolen card is now face up in the thief's herd; one face-down card is left
        v = g.to_json(view=0)
        assert v["player_state"][0]["herd"][str(taken)] == 1
        assert len(v["sable_face_down"]) == 1
    assert takes == {20, 100}


def test_sable_stampede_shows_a_highest_card_and_bounds_the_rest_alike():
    """The shown card bounds every face-down card left in the herd at its value, older and
    newer alike (docs/rules/khan_of_khans.md 6: no order is given away)."""
    g = position(["sable", "bison"], tops={"furthest": ["stampede"]}, herds={0: [50, 100, 50]})
    play(g, "raid-furthest")
    v = g.to_json(view=1)
    assert v["box"]["raid100"] == 1                       # shown
    assert herd_of(g, 0) == {100: 0, 50: 2, 20: 0}
    assert [s["max"] for s in v["sable_face_down"]] == [100, 100]
    g = position(["sable", "bison"], tops={"furthest": ["stampede"]}, herds={0: [20, 50, 20, 50]})
    play(g, "raid-furthest")
    v = g.to_json(view=1)
    assert v["box"]["raid50"] == 1
    assert herd_of(g, 0) == {100: 0, 50: 1, 20: 2}
    # until issue 18 the first 50 went and the older 20 was bounded at 20: [20, 50, 50]
    assert [s["max"] for s in v["sable_face_down"]] == [50, 50, 50]


@pytest.mark.parametrize("herd", [[100, 50, 100, 20, 100], [50, 20, 50, 50], [20, 20], [50]])
def test_sable_stampede_loses_one_card_of_the_highest_value(herd):
    left = list(herd)
    left.remove(max(herd))
    for seed in range(12):
        g = position(["sable", "bison"], tops={"furthest": ["stampede"]}, herds={0: herd},
                     seed=seed)
        box = g.to_json()["box"]
        play(g, "raid-furthest")
        assert herd_of(g, 0) == {v: left.count(v) for v in (100, 50, 20)}
        after = g.to_json()
        assert after["box"][f"raid{max(herd)}"] == box[f"raid{max(herd)}"] + 1
        assert all(s["max"] == max(herd) and s["value"] <= s["max"]
                   for s in after["sable_face_down"])
        g.check_invariants()


def test_sable_loses_a_face_up_card_of_the_highest_value_before_a_face_down_one():
    # Sable (seat 0) steals the Bison Riders' 100, face up; its own 100 stays face down
    g = position(["sable", "bison"], herds={0: [100], 1: [100]},
                 tops={"colymar": ["blessing"], "duckpoint": ["raid20"], "furthest": ["stampede"]})
    play(g, "raid-colymar", "steal-P1-100", "raid-duckpoint", "raid-furthest")
    v = g.to_json(view=1)
    assert v["player_state"][0]["herd"]["100"] == 0 and v["box"]["raid100"] == 1
    assert v["sable_face_down"] == [{"deck": "boldhome", "at": "herd", "max": 100}]
    assert herd_of(g, 0) == {100: 1, 50: 0, 20: 0}


def lost_deck(before, after):
    """The deck of the face-down card that left Sable's herd between two full states."""
    decks = [s["deck"] for s in before["sable_face_down"]]
    for s in after["sable_face_down"]:
        decks.remove(s["deck"])
    (deck,) = decks
    return deck


def three_hundreds(seed):
    """Sable's face-down Boldhome 100, Boldhome 50, Colymar 100 and Duck Point 100, and a
    Stampede! on top of Furthest."""
    return position(["sable", "bison"], tops={"furthest": ["stampede"]},
                    herds={0: [100, 50, 100, 100]}, seed=seed)


def test_the_face_down_card_a_stampede_takes_is_drawn_at_random_and_a_seed_fixes_it():
    lost = []
    for seed in range(60):
        g = three_hundreds(seed)
        before = g.to_json()
        twin = g.clone()
        play(g, "raid-furthest")
        play(twin, "raid-furthest")
        assert twin.to_json() == g.to_json()                      # the same chance, the same card
        again = three_hundreds(seed)
        play(again, "raid-furthest")
        assert again.to_json() == g.to_json()                     # a seed fixes it
        lost.append(lost_deck(before, g.to_json()))
    counts = {d: lost.count(d) for d in set(lost)}
    assert set(counts) == {"boldhome", "colymar", "duckpoint"}    # any of the three 100s
    assert all(k >= 8 for k in counts.values()), counts           # about 20 each


def others_see_alike(a, b, observer=1):
    """The observer's view, the keys a search for it reads (its own in both modes, the one it
    shares with each seat; another seat's own `mo` key is that seat's knowledge) and its
    worlds are the same in a and b."""
    assert a.to_json(view=observer) == b.to_json(view=observer)
    assert _keys_read(a, observer) == _keys_read(b, observer)
    for seed in range(20):                   # the observer's worlds: nothing true survives
        assert a.determinized(observer, seed).to_json() == b.determinized(observer, seed).to_json()


def test_the_others_cannot_tell_which_face_down_card_a_stampede_took():
    # the same deck: Boldhome's 20 and 50 face down, in either order; the 50 goes
    a = position(["sable", "bison"], tops={"furthest": ["stampede"]}, herds={0: [20, 50]})
    b = position(["sable", "bison"], tops={"furthest": ["stampede"]}, herds={0: [50, 20]})
    others_see_alike(a, b)
    play(a, "raid-furthest")
    play(b, "raid-furthest")
    others_see_alike(a, b)
    # until issue 18, a lost its newer card and b its older one: the others saw which
    assert a.to_json(view=1)["sable_face_down"] == [{"deck": "boldhome", "at": "herd", "max": 50}]
    # different decks: Boldhome 100 and Colymar 100, or Boldhome 50 and Colymar 100 (Boldhome's
    # 100 still in its deck); the others see the same until a Stampede! shows Colymar's 100
    seen = set()
    for seed in range(30):
        a = position(["sable", "bison"], tops={"furthest": ["stampede"]},
                     herds={0: [100, 100]}, seed=seed)
        b = position(["sable", "bison"], tops={"furthest": ["stampede"], "boldhome": ["raid100"]},
                     herds={0: [50, 100]}, seed=seed)
        assert [s["deck"] for s in a.to_json()["sable_face_down"]] == ["boldhome", "colymar"]
        assert [s["deck"] for s in b.to_json()["sable_face_down"]] == ["boldhome", "colymar"]
        others_see_alike(a, b)
        before = a.to_json()
        play(a, "raid-furthest")
        play(b, "raid-furthest")
        seen.add(lost_deck(before, a.to_json()))
        if lost_deck(before, a.to_json()) == "colymar":
            # the Boldhome card left may still be a 100 (the oldest 100 no longer goes first)
            others_see_alike(a, b)
            assert a.to_json(view=1)["sable_face_down"][0]["max"] == 100
    assert seen == {"boldhome", "colymar"}


def test_sable_corral_keeps_the_cards_face_down_and_scores_them():
    g = position(["sable", "bison"], herds={0: [100, 50]})
    play(g, "corral")
    v = g.to_json(view=1)
    assert [s["at"] for s in v["sable_face_down"]] == ["corral", "corral"]
    assert v["player_state"][0]["corral_face_down"] == 2
    assert g.scores()[0] == 150


def test_high_llama_sneaks_one_extra_card_into_each_used_corral_once():
    g = position(["llama", "bison"], herds={0: [100, 20]})
    assert not any(t.startswith("sneak") for t in texts(g))   # no used corral yet
    play(g, "corral", "raid-sundome")
    play(g, "raid-boldhome")
    while g.phase == "blessing":
        play(g, "keep")
    g2 = position(["llama", "bison"], herds={0: [100, 20]}, corrals={0: [50]},
                  corrals_used={0: 1})
    assert "sneak-100" in texts(g2) and "sneak-20" in texts(g2)
    play(g2, "sneak-100")
    ps = player(g2, 0)
    assert ps["corral"]["100"] == 1 and ps["sneaked"] == 1 and herd_of(g2, 0)[100] == 0
    assert g2.scores()[0] == 170
    play(g2, "raid-sundome")
    assert not any(t.startswith("sneak") for t in texts(g2))   # that corral had its extra


def test_only_the_high_llama_tribe_sneaks():
    g = position(["bison", "llama"], herds={0: [100]}, corrals={0: [50]}, corrals_used={0: 1})
    assert not any(t.startswith("sneak") for t in texts(g))


# ================================================================ game end and scoring
def one_card_left(khans=TWO, last="raid20", **kw):
    """Every deck empty except the last card of Sun Dome. The Waha's Blessings drawn are never
    discarded: those nobody keeps were received, in turn from seat 0 (10 blessings in all, 20
    cows each); every other card drawn went to the box."""
    return position(khans, tops={"sundome": [last]}, edit=clear_decks({"sundome": 1}), **kw)


def test_the_game_ends_when_every_deck_is_empty():
    g = one_card_left(herds={1: [50]})                   # five blessings each
    assert texts(g)[0] == "raid-sundome" and len([t for t in texts(g) if "raid" in t]) == 1
    play(g, "raid-sundome")
    assert g.is_terminal() and g.to_move == -1
    assert g.scores() == [20 + 100, 50 + 100]
    assert g.ranking() == [2, 1] and g.rewards() == [0.0, 1.0]


def test_the_last_card_a_blessing_is_still_decided():
    g = one_card_left(last="blessing", herds={1: [50]})  # nine received: five to P0, four to P1
    play(g, "raid-sundome")
    assert g.phase == "blessing" and not g.is_terminal()
    play(g, "steal-P1-50")
    assert g.is_terminal() and g.scores() == [50 + 100, 20 + 80]


def test_score_is_corrals_plus_herd_plus_20_per_blessing():
    g = one_card_left(herds={0: [100, 20]}, corrals={0: [50, 50]}, corrals_used={0: 1},
                      kept={0: 2})                       # and four received by each seat
    play(g, "raid-sundome")
    assert g.scores()[0] == 120 + 100 + 20 * (2 + 4) + 20


def tie_position(herd0, herd1, kept0=0, kept1=0):
    return one_card_left(last="stampede", herds={0: herd0, 1: herd1}, kept={0: kept0, 1: kept1},
                         corrals={1: [100]}, corrals_used={1: 1})


def test_tie_break_most_blessings():
    # P0 keeps 2 blessings, each seat received 4 of the other 8; P0 draws a stampede and
    # loses a 100: 100 + 20 + 40 + 80 against 20 + 100 (corral) + 80
    g = tie_position([100, 100, 20], [20], kept0=2, kept1=0)
    play(g, "raid-sundome")
    s = g.scores()
    assert s == [240, 200]
    g = tie_position([100, 100], [50, 20], kept0=2, kept1=0)
    play(g, "raid-sundome")
    assert g.scores() == [220, 250]


def test_tie_breaks_blessings_then_raid_cards_then_shared():
    """All ten blessings are owned at the end, so with two players the blessing counts differ
    by an even number: the blessings the seats do not keep were received half each."""
    def final(herd0, kept0, herd1, kept1):
        g = one_card_left(last="stampede", herds={0: herd0, 1: herd1},
                          kept={0: kept0, 1: kept1}, to_move=1)
        play(g, "raid-sundome")                          # P1's stampede on an empty-ish herd
        return g
    # equal 220: P0 has two blessings more (2 kept + 4 received against 4)
    g = final([100], 2, [50, 50, 20, 20, 100], 0)        # P1 loses its 100: 220 vs 220
    assert g.scores() == [220, 220] and g.ranking() == [1, 2] and g.rewards() == [1.0, 0.0]
    assert g.tiebreaks(0) == (220, 6, 1)
    # equal 220 and blessings (5 received each): more raid cards wins
    g = final([100, 20], 0, [50, 50, 20, 100], 0)
    assert g.scores() == [220, 220] and g.ranking() == [2, 1] and g.rewards() == [0.0, 1.0]
    # fully tied: shared first place, the win split
    g = final([100, 20], 0, [100, 100, 20], 0)
    assert g.scores() == [220, 220] and g.ranking() == [1, 1] and g.rewards() == [0.5, 0.5]


# ================================================================ the interface
def test_illegal_moves_are_refused_without_changing_the_state():
    g = position(TWO, herds={1: [50]})
    before = g.to_json()
    for bad in (10, 14, 40, 81, 95, 3000, -1):
        with pytest.raises(ValueError):
            g.apply(bad)
    assert g.to_json() == before
    with pytest.raises(ValueError):
        g.parse_move("corral")


def test_json_round_trip_and_refusals():
    g = KhanOfKhans(5, 11)
    d = g.to_json()
    assert KhanOfKhans.from_json(d).to_json() == d
    for mutate in (
        lambda x: x["decks"][0]["cards"].append("raid100"),           # an 81st card
        lambda x: x["decks"][0]["cards"].pop(),                         # a lost card
        lambda x: x["player_state"][0].update(corrals_open=9),
        lambda x: x.update(khans=["impala"] * 5),
        lambda x: x.update(game="khiva"),
        lambda x: x.pop("decks"),
        lambda x: x["player_state"][1]["herd"].update({"100": -1}),
    ):
        bad = copy.deepcopy(d)
        mutate(bad)
        with pytest.raises(ValueError):
            KhanOfKhans.from_json(bad)


def test_render_and_narrate_tell_the_story():
    g = position(["sable", "bison"], tops={"boldhome": ["stampede"], "sundome": ["raid100"]},
                 herds={1: [50]})
    b = g.clone()
    play(g, "raid-sundome")
    lines = g.narrate(b, 0, b.parse_move("raid-sundome"))
    assert "Sun Dome" in lines[0] and "face down" in lines[0]
    b = g.clone()
    play(g, "raid-boldhome")
    lines = g.narrate(b, 1, b.parse_move("raid-boldhome"))
    assert "Stampede!" in lines[0] and "Raid! 50 escapes" in lines[0]
    text = g.render()
    assert "Sable Nation" in text and "face down" in text
    assert "?" in g.render(1)                               # Sable's score hidden from P1


# ================================================================ found by a mutation audit
# (2026-12-07): each pins a rule whose plausible bug the tests above let through

# Stampede!
def test_stampede_discards_the_only_raid_card_of_the_herd():
    """*Stampede!*: "You must discard one of your highest value Raid! cards [...] If you do not
    have any Raid! cards in your Herd the Stampede! card has no effect". A herd of one card
    loses that card (the suite covered only a herd of four and an empty one)."""
    g = position(TWO, tops={"furthest": ["stampede"]}, herds={0: [50]})
    play(g, "raid-furthest")
    assert herd_of(g, 0) == {100: 0, 50: 0, 20: 0}
    box = g.to_json()["box"]
    assert box["stampede"] == 1 and box["raid50"] == 1
    assert g.scores()[0] == 0


# Impala People
def test_impala_reveals_three_different_decks_never_one_twice():
    """*The Impala People*: "reveal one card from up to three different Location Decks". A
    deck already revealed in this use cannot be revealed again (which would let the ability
    run on without ever reaching its third deck)."""
    g = position(["impala", "bison"], tops={"boldhome": ["raid20"], "colymar": ["magic"]},
                 corrals={0: [20]}, corrals_used={0: 1}, edit=token_coloured)
    play(g, "observant", "reveal-boldhome")
    moves = texts(g)
    assert "reveal-boldhome" not in moves
    assert "reveal-colymar" in moves and "stop" in moves
    play(g, "reveal-colymar")
    moves = texts(g)
    assert "reveal-boldhome" not in moves and "reveal-colymar" not in moves
    assert len([m for m in moves if m.startswith("reveal-")]) == 8


# tie-breaks
def _final_raid(herd0, herd1, recv0, recv1, kept1=0, corrals0=None):
    """Two players, Sun Dome's last card a Raid! 20 that P0 draws, ending the game. The ten
    Waha's Blessings: P1 keeps `kept1`, the rest were received, recv0 by P0, recv1 by P1."""
    clear = clear_decks({"sundome": 1})

    def edit(d):
        clear(d)
        d["player_state"][0]["received_blessings"] = recv0
        d["player_state"][1]["received_blessings"] = recv1
    kw = {}
    if corrals0:
        kw = {"corrals": {0: corrals0}, "corrals_used": {0: 1}}
    g = position(TWO, tops={"sundome": ["raid20"]}, herds={0: herd0, 1: herd1},
                 kept={1: kept1} if kept1 else None, edit=edit, **kw)
    play(g, "raid-sundome")
    assert g.is_terminal()
    return g


def test_tie_break_counts_received_blessings_not_only_kept_ones():
    """*Game End*: "In the event of a tie, the player with the most Waha's Blessing cards is the
    winner"; rules 3 and 9: kept and received blessings both count. P0 owns 6 (all received),
    P1 4 (2 kept, 2 received), scores equal: P0 wins, though P1 kept more and holds more
    Raid! cards."""
    g = _final_raid(herd0=[100], herd1=[100, 20, 20, 20], recv0=6, recv1=2, kept1=2)
    assert g.scores() == [100 + 20 + 6 * 20, 160 + 4 * 20]          # 240 each
    assert g.tiebreaks(0)[:2] == (240, 6) and g.tiebreaks(1)[:2] == (240, 4)
    assert g.ranking() == [1, 2] and g.rewards() == [1.0, 0.0]


def test_tie_break_raid_cards_count_the_corrals_too():
    """*Game End*: "If this does not break the tie, the player with the highest number of
    individual Raid! cards wins"; rules 9: corrals and herd. P0 holds 4 (2 corralled, 2 in
    the herd), P1 3 (all in the herd), scores and blessings equal: P0 wins."""
    g = _final_raid(herd0=[20], herd1=[100, 20, 20], recv0=5, recv1=5, corrals0=[50, 50])
    assert g.scores() == [100 + 20 + 20 + 100, 140 + 100]            # 240 each
    assert g.tiebreaks(0) == (240, 5, 4) and g.tiebreaks(1) == (240, 5, 3)
    assert g.ranking() == [1, 2] and g.rewards() == [1.0, 0.0]
